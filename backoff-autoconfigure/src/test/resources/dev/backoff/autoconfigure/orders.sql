create table orders (id int auto_increment primary key, item varchar(50) not null, attempt int not null);
