SET DEFAULT_LOCK_TIMEOUT 50;
create table owner (id int primary key, name varchar(50) not null);
insert into owner (id, name) values (1, 'Franklin');
